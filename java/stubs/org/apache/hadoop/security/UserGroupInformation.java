package org.apache.hadoop.security;


public class UserGroupInformation {
  private UserGroupInformation() {}
}
