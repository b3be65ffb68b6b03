//! The JNI surface of `spindle_core::Session` for `org.spindle.core.SpindleCore`.
//! It converts types and calls the Session, nothing else.
//!
//! - One Session per handle (a `jlong` holding a boxed mutex); handle 0 is a
//!   closed core.
//! - Registration calls take strings; the heartbeat takes and returns
//!   primitives only and writes grants into a caller-owned `int[]` (4 ints a
//!   grant: app, priority, count, locality 0/1/2), so a steady-state
//!   heartbeat allocates nothing on either side.
//! - Every entry point catches errors and panics: bad input becomes
//!   `IllegalArgumentException`, a closed handle or an internal fault
//!   `IllegalStateException`, each with the Rust message. Nothing unwinds
//!   into the JVM.
//! - Raw JNI calls throughout (jni's `sys` layer): the heartbeat is one array
//!   region write, no wrapper objects.
//! - Exact input (`nativeInputBlocks`) comes from the plugin, which reads each
//!   job's split file with Hadoop's own FileSystem client as the job's user;
//!   the core does no I/O.

// The `pub unsafe extern` functions are JNI entry points: only the JVM calls
// them, with the arguments `SpindleCore`'s native declarations promise.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::time::Duration;

use jni::sys::{
    jboolean, jclass, jdouble, jdoubleArray, jfloat, jint, jintArray, jlong, jlongArray,
    jobjectArray, jstring, JNIEnv,
};
use spindle_core::policy::delay::LocalityDelay;
use spindle_core::session::JobOrder;
use spindle_core::session::{BackgroundPlanner, Limits, NodeOffer};
use spindle_core::{CostModel, Grant, Locality, PolicyKind, Resources, Session, SessionConfig};

type Env = *mut JNIEnv;

/// How often the planner thread looks for changed inputs: a changed ask is
/// in the plan within this plus one plan's time (it shows in grants at once
/// through the counts the heartbeat reads).
const PLANNER_POLL: Duration = Duration::from_millis(10);

struct Core {
    session: Session,
    grants: Vec<Grant>,
    /// Grants of the last heartbeat that did not fit the caller's buffer.
    overflow: Vec<Grant>,
    /// The last node decision (reused).
    offers: Vec<NodeOffer>,
}

/// What a handle points to: the Session, and its planner thread.
struct Handle {
    core: Arc<Mutex<Core>>,
    /// The planner thread (with background planning): it takes the lock to
    /// copy the inputs and to swap a plan in, never while it plans.
    planner: Option<BackgroundPlanner>,
}

/// What went wrong, and so which Java exception to throw.
enum Fault {
    BadInput(String),
    Internal(String),
}

impl From<spindle_core::SessionError> for Fault {
    fn from(e: spindle_core::SessionError) -> Fault {
        Fault::BadInput(e.to_string())
    }
}

unsafe fn throw(env: Env, fault: Fault) {
    let (class, message) = match fault {
        Fault::BadInput(m) => (c"java/lang/IllegalArgumentException", m),
        Fault::Internal(m) => (c"java/lang/IllegalStateException", m),
    };
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    let api = &(**env).v1_2;
    if (api.ExceptionCheck)(env) {
        return;
    }
    let cls = (api.FindClass)(env, class.as_ptr());
    if !cls.is_null() {
        (api.ThrowNew)(env, cls, message.as_ptr());
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// A panic inside the RM must not print a backtrace there: one line on
/// stderr, and the message travels on in the Java exception.
fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| eprintln!("spindle core panicked: {info}")));
    });
}

/// Runs `f`, turning errors and panics into a pending Java exception.
unsafe fn guard<T: Default>(env: Env, f: impl FnOnce() -> Result<T, Fault>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(fault)) => {
            throw(env, fault);
            T::default()
        }
        Err(payload) => {
            let msg = format!(
                "internal error in the spindle core: {}",
                panic_message(payload.as_ref())
            );
            throw(env, Fault::Internal(msg));
            T::default()
        }
    }
}

/// Runs `f` on the core behind `handle`, under its lock. A panic inside an
/// earlier call poisons the lock; the Session's state is still consistent
/// (events validate before they change anything).
unsafe fn locked<T>(
    handle: jlong,
    f: impl FnOnce(&mut Core) -> Result<T, Fault>,
) -> Result<T, Fault> {
    let h = handle_ref(handle)?;
    let mut guard = h.core.lock().unwrap_or_else(PoisonError::into_inner);
    f(&mut guard)
}

unsafe fn handle_ref<'a>(handle: jlong) -> Result<&'a Handle, Fault> {
    if handle == 0 {
        return Err(Fault::Internal("the spindle core is closed".into()));
    }
    Ok(&*(handle as *const Handle))
}

unsafe fn string(env: Env, s: jstring, what: &str) -> Result<String, Fault> {
    if s.is_null() {
        return Err(Fault::BadInput(format!("{what} is null")));
    }
    let api = &(**env).v1_2;
    let chars = (api.GetStringUTFChars)(env, s, std::ptr::null_mut());
    if chars.is_null() {
        return Err(Fault::Internal(format!("could not read {what}")));
    }
    let out = modified_utf8(CStr::from_ptr(chars).to_bytes());
    (api.ReleaseStringUTFChars)(env, s, chars);
    Ok(out)
}

/// Decodes JNI's modified UTF-8: U+0000 comes as `C0 80`, and must reach
/// the core as a NUL it refuses, not as two replacement characters.
fn modified_utf8(bytes: &[u8]) -> String {
    let mut v = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0xC0 && bytes.get(i + 1) == Some(&0x80) {
            v.push(0);
            i += 2;
        } else {
            v.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&v).into_owned()
}

fn id(v: jint, what: &str) -> Result<u32, Fault> {
    u32::try_from(v).map_err(|_| Fault::BadInput(format!("{what} must not be negative, got {v}")))
}

fn resources(memory_mb: jlong, vcores: jint) -> Resources {
    Resources::new(memory_mb, vcores)
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeCreate(
    env: Env,
    _: jclass,
    policy: jstring,
    cost_local: jdouble,
    cost_remote: jdouble,
    remote_growth: jdouble,
    seed: jlong,
    node_locality_delay: jint,
    rack_locality_additional_delay: jint,
    background_planning: jboolean,
) -> jlong {
    quiet_panics();
    guard(env, || {
        let name = string(env, policy, "policy")?;
        let policy = PolicyKind::from_name(&name).map_err(|e| Fault::BadInput(e.to_string()))?;
        let cost = CostModel {
            local: cost_local,
            remote: cost_remote,
            remote_growth,
        };
        for (field, v) in [
            ("local", cost_local),
            ("remote", cost_remote),
            ("remote growth", remote_growth),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Fault::BadInput(format!(
                    "{field} cost must be a finite number >= 0, got {v}"
                )));
            }
        }
        let session = Session::new(SessionConfig {
            policy,
            cost,
            seed: seed as u64,
            delay: LocalityDelay {
                node_locality_delay,
                rack_locality_additional_delay,
            },
            ..SessionConfig::default()
        });
        let core = Arc::new(Mutex::new(Core {
            session,
            grants: Vec::with_capacity(64),
            overflow: Vec::new(),
            offers: Vec::with_capacity(spindle_core::session::MAX_OFFERS),
        }));
        let planner = if background_planning {
            let p = BackgroundPlanner::spawn(core.clone(), |c| &mut c.session, PLANNER_POLL, None)
                .map_err(|e| Fault::Internal(format!("could not start the planner thread: {e}")))?;
            Some(p)
        } else {
            None
        };
        let handle = Box::new(Handle { core, planner });
        Ok(Box::into_raw(handle) as jlong)
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeDestroy(
    env: Env,
    _: jclass,
    handle: jlong,
) {
    guard(env, || {
        if handle != 0 {
            drop(Box::from_raw(handle as *mut Handle));
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeAddNode(
    env: Env,
    _: jclass,
    handle: jlong,
    host: jstring,
    rack: jstring,
    memory_mb: jlong,
    vcores: jint,
    speed: jdouble,
) -> jint {
    guard(env, || {
        let host = string(env, host, "host")?;
        let rack = string(env, rack, "rack")?;
        locked(handle, |c| {
            Ok(c.session
                .add_node(&host, &rack, resources(memory_mb, vcores), speed)?
                as jint)
        })
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeRemoveNode(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
) {
    guard(env, || {
        let node = id(node, "node id")?;
        locked(handle, |c| Ok(c.session.remove_node(node)?))
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeUpdateNode(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
    memory_mb: jlong,
    vcores: jint,
) {
    guard(env, || {
        let node = id(node, "node id")?;
        locked(handle, |c| {
            Ok(c.session.update_node(node, resources(memory_mb, vcores))?)
        })
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeAddApp(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jstring,
    weight: jdouble,
    submit_ms: jlong,
) -> jint {
    guard(env, || {
        let app = string(env, app, "application id")?;
        locked(handle, |c| {
            Ok(c.session.add_app(&app, weight, submit_ms)? as jint)
        })
    })
}

/// The app's weight changed (its YARN priority was updated).
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeSetAppWeight(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jint,
    weight: jdouble,
) {
    guard(env, || {
        let app = id(app, "application id")?;
        locked(handle, |c| Ok(c.session.set_app_weight(app, weight)?))
    })
}

/// The app's AM reported `progress` (0 to 1) at `now_ms`.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeAppProgress(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jint,
    progress: jfloat,
    now_ms: jlong,
) {
    guard(env, || {
        let app = id(app, "application id")?;
        locked(handle, |c| {
            Ok(c.session.app_progress(app, progress, now_ms)?)
        })
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeFinishApp(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jint,
) {
    guard(env, || {
        let app = id(app, "application id")?;
        locked(handle, |c| Ok(c.session.finish_app(app)?))
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeUpdateAsk(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jint,
    priority: jint,
    resource: jstring,
    count: jint,
    memory_mb: jlong,
    vcores: jint,
    relax_locality: jboolean,
) {
    guard(env, || {
        let app = id(app, "application id")?;
        let resource = string(env, resource, "resource name")?;
        locked(handle, |c| {
            Ok(c.session.update_ask(
                app,
                priority,
                &resource,
                count,
                resources(memory_mb, vcores),
                relax_locality,
            )?)
        })
    })
}

/// `tasks[i]` lists task i's replica hosts, comma separated.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeInputBlocks(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jint,
    priority: jint,
    tasks: jobjectArray,
) {
    guard(env, || {
        let app = id(app, "application id")?;
        if tasks.is_null() {
            return Err(Fault::BadInput("input blocks are null".into()));
        }
        let api = &(**env).v1_2;
        let n = (api.GetArrayLength)(env, tasks);
        let mut lists: Vec<Vec<String>> = Vec::with_capacity(n.max(0) as usize);
        for i in 0..n {
            let s = (api.GetObjectArrayElement)(env, tasks, i);
            let text = string(env, s, &format!("input block {i}"))?;
            (api.DeleteLocalRef)(env, s);
            lists.push(
                text.split(',')
                    .map(str::trim)
                    .filter(|h| !h.is_empty())
                    .map(String::from)
                    .collect(),
            );
        }
        locked(handle, |c| {
            Ok(c.session.set_input_blocks(app, priority, &lists)?)
        })
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeContainerFinished(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
) {
    guard(env, || {
        let node = id(node, "node id")?;
        locked(handle, |c| Ok(c.session.container_finished(node)?))
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeAppContainerFinished(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
    app: jint,
) {
    guard(env, || {
        let node = id(node, "node id")?;
        let app = id(app, "app id")?;
        locked(handle, |c| {
            Ok(c.session.app_container_finished(node, app)?)
        })
    })
}

#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeContainerRecovered(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
    app: jint,
) {
    guard(env, || {
        let node = id(node, "node id")?;
        let app = id(app, "app id")?;
        locked(handle, |c| Ok(c.session.container_recovered(node, app)?))
    })
}

fn locality_code(l: Locality) -> jint {
    match l {
        Locality::Node => 0,
        Locality::Rack => 1,
        Locality::OffSwitch => 2,
    }
}

/// Writes `grants` into `out` (4 ints each); returns how many were written.
unsafe fn write_grants(env: Env, out: jintArray, grants: &[Grant]) -> Result<usize, Fault> {
    write_quads(env, out, "grant buffer", grants.len(), |i| {
        let g = &grants[i];
        [
            g.app as jint,
            g.priority,
            g.count as jint,
            locality_code(g.locality),
        ]
    })
}

/// Writes `n` records of 4 ints (`record(i)`) into `out`, as many as fit;
/// returns how many were written. Through a stack buffer: no allocation.
unsafe fn write_quads(
    env: Env,
    out: jintArray,
    what: &str,
    n: usize,
    record: impl Fn(usize) -> [jint; 4],
) -> Result<usize, Fault> {
    if out.is_null() {
        return Err(Fault::BadInput(format!("{what} is null")));
    }
    let api = &(**env).v1_2;
    let fit = ((api.GetArrayLength)(env, out) / 4).max(0) as usize;
    let n = n.min(fit);
    let mut buf = [0 as jint; 64];
    let mut written = 0;
    while written < n {
        let chunk = (n - written).min(16);
        for k in 0..chunk {
            buf[4 * k..4 * k + 4].copy_from_slice(&record(written + k));
        }
        (api.SetIntArrayRegion)(
            env,
            out,
            (4 * written) as jint,
            (4 * chunk) as jint,
            buf.as_ptr(),
        );
        written += chunk;
    }
    Ok(n)
}

/// A node heartbeat. Returns the number of grants decided; if that exceeds
/// `out.length / 4`, the rest wait for `nativeDrain`.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeHeartbeat(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
    free_memory_mb: jlong,
    free_vcores: jint,
    now_ms: jlong,
    out: jintArray,
) -> jint {
    guard(env, || {
        let node = id(node, "node id")?;
        locked(handle, |c| {
            let Core {
                session,
                grants,
                overflow,
                ..
            } = c;
            session.node_heartbeat(node, resources(free_memory_mb, free_vcores), now_ms, grants)?;
            let written = write_grants(env, out, grants)?;
            overflow.clear();
            overflow.extend_from_slice(&grants[written..]);
            Ok(grants.len() as jint)
        })
    })
}

/// A node's decision for a host that places containers itself (the
/// CapacityScheduler mode): writes its offers into `out` (4 ints each:
/// app, priority, count, locality) and returns how many there are (at most
/// `spindle_core::session::MAX_OFFERS`; those beyond `out.length / 4` are
/// not written). `running` is the host's count of containers on the node.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeNodeOffers(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
    free_memory_mb: jlong,
    free_vcores: jint,
    running: jint,
    now_ms: jlong,
    out: jintArray,
) -> jint {
    guard(env, || {
        let node = id(node, "node id")?;
        let running = id(running, "running container count")?;
        locked(handle, |c| {
            let Core {
                session, offers, ..
            } = c;
            session.node_offers(
                node,
                resources(free_memory_mb, free_vcores),
                running,
                now_ms,
                offers,
            )?;
            write_quads(env, out, "offer buffer", offers.len(), |i| {
                let o = &offers[i];
                [
                    o.app as jint,
                    o.priority,
                    o.count.min(jint::MAX as u32) as jint,
                    locality_code(o.locality),
                ]
            })?;
            Ok(offers.len() as jint)
        })
    })
}

/// A container the host placed on `node` for `app` at `priority` and
/// `locality` (0 node, 1 rack, 2 off-switch): the Session books it. False
/// when it holds no asks of the app at that priority.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeBookPlaced(
    env: Env,
    _: jclass,
    handle: jlong,
    node: jint,
    app: jint,
    priority: jint,
    locality: jint,
    now_ms: jlong,
) -> jboolean {
    guard(env, || {
        let node = id(node, "node id")?;
        let app = id(app, "application id")?;
        let locality = match locality {
            0 => Locality::Node,
            1 => Locality::Rack,
            2 => Locality::OffSwitch,
            l => {
                return Err(Fault::BadInput(format!(
                    "locality must be 0 (node), 1 (rack) or 2 (off-switch), got {l}"
                )))
            }
        };
        locked(handle, |c| {
            Ok(c.session
                .book_placed(node, app, priority, locality, now_ms)?)
        })
    })
}

/// A container the host placed for `app` ended.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativePlacedReleased(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jint,
    now_ms: jlong,
) {
    guard(env, || {
        let app = id(app, "application id")?;
        locked(handle, |c| Ok(c.session.placed_released(app, now_ms)?))
    })
}

/// Changes whenever the job order does.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeOrderSignature(
    env: Env,
    _: jclass,
    handle: jlong,
) -> jlong {
    guard(env, || {
        locked(handle, |c| Ok(c.session.order_signature() as jlong))
    })
}

/// The job order: writes the rank of each application id into `out`
/// (`-1` for finished ones), as many as fit; returns how many apps there are.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeAppRanks(
    env: Env,
    _: jclass,
    handle: jlong,
    out: jintArray,
) -> jint {
    guard(env, || {
        if out.is_null() {
            return Err(Fault::BadInput("rank buffer is null".into()));
        }
        locked(handle, |c| {
            let ranks = c.session.app_ranks();
            let api = &(**env).v1_2;
            let fit = ((api.GetArrayLength)(env, out).max(0) as usize).min(ranks.len());
            let mut buf = [0 as jint; 256];
            let mut written = 0;
            while written < fit {
                let chunk = (fit - written).min(buf.len());
                for (k, &r) in ranks[written..written + chunk].iter().enumerate() {
                    buf[k] = if r == u32::MAX {
                        -1
                    } else {
                        r.min(jint::MAX as u32) as jint
                    };
                }
                (api.SetIntArrayRegion)(env, out, written as jint, chunk as jint, buf.as_ptr());
                written += chunk;
            }
            Ok(ranks.len().min(jint::MAX as usize) as jint)
        })
    })
}

/// Sets the locality-wait cap (`spindle.locality.max-wait-ms`; negative: none).
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeSetLocalityWait(
    env: Env,
    _: jclass,
    handle: jlong,
    max_wait_ms: jlong,
) {
    guard(env, || {
        if max_wait_ms > 86_400_000 {
            return Err(Fault::BadInput(format!(
                "spindle.locality.max-wait-ms must be at most 86400000 (a day), or negative for no cap; got {max_wait_ms}"
            )));
        }
        locked(handle, |c| {
            c.session.set_max_wait_ms(max_wait_ms);
            Ok(())
        })
    })
}

/// Sets the most off-switch containers a node heartbeat grants
/// (`spindle.per-node-heartbeat.maximum-offswitch-assignments`; at least 1).
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeSetOffSwitchLimit(
    env: Env,
    _: jclass,
    handle: jlong,
    limit: jint,
) {
    guard(env, || {
        let Ok(limit @ 1..) = u32::try_from(limit) else {
            return Err(Fault::BadInput(format!(
                "spindle.per-node-heartbeat.maximum-offswitch-assignments must be at least 1; got {limit}"
            )));
        };
        locked(handle, |c| {
            c.session.set_offswitch_per_heartbeat(limit);
            Ok(())
        })
    })
}

/// Sets the application order (`spindle.job.order`: fifo,
/// weighted-remaining or spc); a bad name is an exception listing them.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeSetJobOrder(
    env: Env,
    _: jclass,
    handle: jlong,
    order: jstring,
) {
    guard(env, || {
        let name = string(env, order, "job order")?;
        let order = JobOrder::from_name(name.trim()).ok_or_else(|| {
            Fault::BadInput(format!(
                "spindle.job.order must be one of {}; got {name:?}",
                JobOrder::names()
            ))
        })?;
        locked(handle, |c| {
            c.session.set_job_order(order);
            Ok(())
        })
    })
}

/// Switches ASM1's insertions between full plans (`spindle.planning.incremental`).
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeSetIncremental(
    env: Env,
    _: jclass,
    handle: jlong,
    on: jboolean,
) {
    guard(env, || {
        locked(handle, |c| {
            c.session.set_incremental(on);
            Ok(())
        })
    })
}

/// Replaces the Session's limits (see `spindle_core::session::Limits`).
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeSetLimits(
    env: Env,
    _: jclass,
    handle: jlong,
    max_host_ask: jint,
    max_planned_tasks: jlong,
) {
    guard(env, || {
        let max_host_ask = u32::try_from(max_host_ask)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| {
                Fault::BadInput(format!(
                    "max-host-ask must be at least 1, got {max_host_ask}"
                ))
            })?;
        let max_planned_tasks = usize::try_from(max_planned_tasks).map_err(|_| {
            Fault::BadInput(format!(
                "max-planned-tasks must not be negative, got {max_planned_tasks}"
            ))
        })?;
        locked(handle, |c| {
            c.session.set_limits(Limits {
                max_host_ask,
                max_planned_tasks,
                ..Limits::default()
            });
            Ok(())
        })
    })
}

/// The planner thread's figures into `out` (up to 7 doubles): plans
/// installed, tasks of the last plan, its time in ms, the longest plan in
/// ms, the longest lock hold in us, the longest copy and install in us. Returns how many were written (0 without
/// background planning).
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativePlanStats(
    env: Env,
    _: jclass,
    handle: jlong,
    out: jdoubleArray,
) -> jint {
    guard(env, || {
        if out.is_null() {
            return Err(Fault::BadInput("plan stats buffer is null".into()));
        }
        let h = handle_ref(handle)?;
        let Some(p) = &h.planner else {
            return Ok(0);
        };
        let st = p.stats();
        let v = [
            st.plans as f64,
            st.last_tasks as f64,
            st.last_ms,
            st.max_ms,
            st.max_locked_us,
            st.max_copy_us,
            st.max_install_us,
        ];
        let api = &(**env).v1_2;
        let n = ((api.GetArrayLength)(env, out).max(0) as usize).min(v.len());
        (api.SetDoubleArrayRegion)(env, out, 0, n as jint, v.as_ptr());
        Ok(n as jint)
    })
}

/// Grants of the last heartbeat that did not fit; returns how many were written.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeDrain(
    env: Env,
    _: jclass,
    handle: jlong,
    out: jintArray,
) -> jint {
    guard(env, || {
        locked(handle, |c| {
            let written = write_grants(env, out, &c.overflow)?;
            c.overflow.drain(..written);
            Ok(written as jint)
        })
    })
}

/// Why idle heartbeats granted nothing, as JSON (`ActivitiesReport`): the
/// entries about application `app` on host `host`, each when not null.
/// An unknown application or host throws IllegalArgumentException naming it.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeActivities(
    env: Env,
    _: jclass,
    handle: jlong,
    app: jstring,
    host: jstring,
) -> jstring {
    let json = guard(env, || {
        let app = if app.is_null() {
            None
        } else {
            Some(string(env, app, "application id")?)
        };
        let host = if host.is_null() {
            None
        } else {
            Some(string(env, host, "host")?)
        };
        locked(handle, |c| {
            Ok(Some(
                c.session
                    .activities_named(app.as_deref(), host.as_deref())?
                    .to_json(),
            ))
        })
    });
    match json {
        Some(j) => {
            let c = CString::new(j.replace('\0', " ")).unwrap_or_default();
            ((**env).v1_2.NewStringUTF)(env, c.as_ptr())
        }
        None => std::ptr::null_mut(),
    }
}

/// Idle heartbeats and passed-over applications counted by reason
/// (`spindle_core::session::Reason::ALL` order) into `out`; returns how many
/// were written.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativeReasonCounts(
    env: Env,
    _: jclass,
    handle: jlong,
    out: jlongArray,
) -> jint {
    guard(env, || {
        if out.is_null() {
            return Err(Fault::BadInput("reason counts buffer is null".into()));
        }
        let counts = locked(handle, |c| Ok(c.session.reason_counts()))?;
        let v: Vec<jlong> = counts
            .iter()
            .map(|&(_, n)| n.min(i64::MAX as u64) as jlong)
            .collect();
        let api = &(**env).v1_2;
        let n = ((api.GetArrayLength)(env, out).max(0) as usize).min(v.len());
        (api.SetLongArrayRegion)(env, out, 0, n as jint, v.as_ptr());
        Ok(n as jint)
    })
}

/// For tests of the failure path: panics inside the core, under its lock.
#[no_mangle]
pub unsafe extern "system" fn Java_org_spindle_core_SpindleCore_nativePanicForTest(
    env: Env,
    _: jclass,
    handle: jlong,
) {
    guard(env, || {
        locked(handle, |_| -> Result<(), Fault> {
            panic!("forced panic for a test (node {})", 42)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::modified_utf8;

    #[test]
    fn modified_utf8_nul_reaches_the_core_as_nul() {
        assert_eq!(modified_utf8(b"h\xC0\x80st"), "h\0st");
        assert_eq!(modified_utf8("n\u{e9}ud".as_bytes()), "n\u{e9}ud");
        assert_eq!(modified_utf8(b"a\xC0"), "a\u{FFFD}");
    }
}
