# Account trail writing to its own hardened bucket, encrypted with a dedicated key.
data "aws_caller_identity" "current" {}

resource "aws_kms_key" "trail" {
  description             = "CloudTrail log encryption"
  deletion_window_in_days = 30
  enable_key_rotation     = true
}

resource "aws_s3_bucket" "trail" {
  bucket        = "acme-security-cloudtrail-${data.aws_caller_identity.current.account_id}"
  force_destroy = false
}

resource "aws_s3_bucket_versioning" "trail" {
  bucket = aws_s3_bucket.trail.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "trail" {
  bucket = aws_s3_bucket.trail.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = "aws:kms"
      kms_master_key_id = aws_kms_key.trail.arn
    }
  }
}

resource "aws_s3_bucket_public_access_block" "trail" {
  bucket                  = aws_s3_bucket.trail.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_logging" "trail" {
  bucket        = aws_s3_bucket.trail.id
  target_bucket = "acme-prod-s3-access-logs"
  target_prefix = "cloudtrail/"
}

resource "aws_cloudtrail" "account" {
  name                          = "account-trail"
  s3_bucket_name                = aws_s3_bucket.trail.id
  kms_key_id                    = aws_kms_key.trail.arn
  is_multi_region_trail         = true
  include_global_service_events = true
  enable_logging                = true
  enable_log_file_validation    = true
  sns_topic_name                = "account-trail-events"
  cloud_watch_logs_group_arn    = "arn:aws:logs:eu-west-1:123456789012:log-group:cloudtrail:*"
  cloud_watch_logs_role_arn     = "arn:aws:iam::123456789012:role/cloudtrail-to-cloudwatch"
}
