package org.apache.hadoop.yarn.util.resource;


public abstract class ResourceCalculator {
}
