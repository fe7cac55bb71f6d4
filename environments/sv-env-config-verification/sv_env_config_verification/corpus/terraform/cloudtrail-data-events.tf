resource "aws_cloudtrail" "data_events" {
  name                          = "s3-data-events"
  s3_bucket_name                = "acme-org-cloudtrail"
  s3_key_prefix                 = "data-events"
  kms_key_id                    = aws_kms_key.data_events.arn
  is_multi_region_trail         = true
  include_global_service_events = true
  enable_logging                = true
  enable_log_file_validation    = true
  sns_topic_name                = "data-events-trail"
  cloud_watch_logs_group_arn    = "arn:aws:logs:eu-west-1:123456789012:log-group:data-events:*"
  cloud_watch_logs_role_arn     = "arn:aws:iam::123456789012:role/cloudtrail-to-cloudwatch"

  event_selector {
    read_write_type           = "WriteOnly"
    include_management_events = false

    data_resource {
      type   = "AWS::S3::Object"
      values = ["arn:aws:s3:::acme-customer-uploads/"]
    }
  }
}

resource "aws_kms_key" "data_events" {
  description             = "Encrypts S3 data-event trail logs"
  deletion_window_in_days = 30
  enable_key_rotation     = true
}
