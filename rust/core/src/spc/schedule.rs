//! Algorithms 1 and 2 of seed 002 (placement); see the module above.
