resource "aws_cloudtrail" "org" {
  name                          = "org-audit-trail"
  s3_bucket_name                = "acme-org-cloudtrail"
  s3_key_prefix                 = "trail"
  kms_key_id                    = var.trail_kms_key_arn
  is_multi_region_trail         = true
  is_organization_trail         = true
  include_global_service_events = true
  enable_logging                = true
  enable_log_file_validation    = true
  sns_topic_name                = "org-cloudtrail-notifications"
  cloud_watch_logs_group_arn    = "${aws_cloudwatch_log_group.trail.arn}:*"
  cloud_watch_logs_role_arn     = var.trail_cloudwatch_role_arn

  event_selector {
    read_write_type           = "All"
    include_management_events = true
  }
}

resource "aws_cloudwatch_log_group" "trail" {
  name              = "/aws/cloudtrail/org-audit-trail"
  retention_in_days = 365
  kms_key_id        = var.trail_kms_key_arn
}

variable "trail_kms_key_arn" {
  type = string
}

variable "trail_cloudwatch_role_arn" {
  type = string
}
