# Analytics platform: encrypted warehouse database, curated bucket and the ETL role.
resource "aws_s3_bucket" "curated" {
  bucket = "acme-analytics-curated"
}

resource "aws_s3_bucket_versioning" "curated" {
  bucket = aws_s3_bucket.curated.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "curated" {
  bucket = aws_s3_bucket.curated.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = "aws:kms"
      kms_master_key_id = var.analytics_kms_key_arn
    }
    bucket_key_enabled = true
  }
}

resource "aws_s3_bucket_public_access_block" "curated" {
  bucket                  = aws_s3_bucket.curated.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_logging" "curated" {
  bucket        = aws_s3_bucket.curated.id
  target_bucket = "acme-prod-s3-access-logs"
  target_prefix = "curated/"
}

resource "aws_db_instance" "warehouse" {
  identifier                          = "analytics-warehouse"
  engine                              = "postgres"
  engine_version                      = "15.6"
  instance_class                      = "db.r6g.2xlarge"
  allocated_storage                   = 1000
  storage_type                        = "io1"
  iops                                = 10000
  storage_encrypted                   = true
  kms_key_id                          = var.analytics_kms_key_arn
  username                            = "warehouse_admin"
  manage_master_user_password         = true
  db_subnet_group_name                = "analytics-private"
  publicly_accessible                 = false
  multi_az                            = true
  backup_retention_period             = 30
  deletion_protection                 = true
  copy_tags_to_snapshot               = true
  auto_minor_version_upgrade          = true
  iam_database_authentication_enabled = true
  monitoring_interval                 = 60
  monitoring_role_arn                 = var.rds_monitoring_role_arn
  performance_insights_enabled        = true
  performance_insights_kms_key_id     = var.analytics_kms_key_arn
  enabled_cloudwatch_logs_exports     = ["postgresql"]
}

resource "aws_iam_role_policy" "etl" {
  name = "etl-curated-writer"
  role = var.etl_role_name
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid      = "WriteCurated"
        Effect   = "Allow"
        Action   = ["s3:PutObject", "s3:AbortMultipartUpload"]
        Resource = "${aws_s3_bucket.curated.arn}/*"
      },
      {
        Sid      = "ConnectWarehouse"
        Effect   = "Allow"
        Action   = ["rds-db:connect"]
        Resource = "arn:aws:rds-db:eu-west-1:123456789012:dbuser:*/etl"
      }
    ]
  })
}

variable "analytics_kms_key_arn" {
  type = string
}

variable "rds_monitoring_role_arn" {
  type = string
}

variable "etl_role_name" {
  type = string
}
