# Security baseline applied to every workload account.
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.40"
    }
  }
}

locals {
  account_id = "123456789012"
  vpn_cidr   = "10.255.0.0/16"
}

resource "aws_kms_key" "baseline" {
  description             = "Account baseline: audit logs and default EBS encryption"
  deletion_window_in_days = 30
  enable_key_rotation     = true
}

resource "aws_ebs_encryption_by_default" "this" {
  enabled = true
}

resource "aws_s3_bucket" "audit" {
  bucket = "acme-audit-${local.account_id}"
}

resource "aws_s3_bucket_versioning" "audit" {
  bucket = aws_s3_bucket.audit.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "audit" {
  bucket = aws_s3_bucket.audit.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = "aws:kms"
      kms_master_key_id = aws_kms_key.baseline.arn
    }
  }
}

resource "aws_s3_bucket_public_access_block" "audit" {
  bucket                  = aws_s3_bucket.audit.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_logging" "audit" {
  bucket        = aws_s3_bucket.audit.id
  target_bucket = "acme-prod-s3-access-logs"
  target_prefix = "audit/${local.account_id}/"
}

resource "aws_cloudtrail" "baseline" {
  name                          = "baseline"
  s3_bucket_name                = aws_s3_bucket.audit.id
  kms_key_id                    = aws_kms_key.baseline.arn
  is_multi_region_trail         = true
  include_global_service_events = true
  enable_logging                = true
  enable_log_file_validation    = true
  sns_topic_name                = "baseline-trail"
  cloud_watch_logs_group_arn    = "arn:aws:logs:eu-west-1:123456789012:log-group:baseline-trail:*"
  cloud_watch_logs_role_arn     = "arn:aws:iam::123456789012:role/cloudtrail-to-cloudwatch"
}

resource "aws_iam_policy" "auditor" {
  name        = "security-auditor-extras"
  description = "Read audit logs on top of the AWS SecurityAudit managed policy"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Effect   = "Allow"
        Action   = ["s3:GetObject", "s3:ListBucket"]
        Resource = [aws_s3_bucket.audit.arn, "${aws_s3_bucket.audit.arn}/*"]
      },
      {
        Effect   = "Allow"
        Action   = ["kms:Decrypt"]
        Resource = aws_kms_key.baseline.arn
      }
    ]
  })
}

resource "aws_security_group" "admin" {
  name        = "admin-access"
  description = "Administrative access from the VPN only"
  vpc_id      = "vpc-0123456789abcdef0"

  ingress {
    description = "SSH from VPN"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.255.0.0/16"]
  }

  ingress {
    description = "RDP from VPN"
    from_port   = 3389
    to_port     = 3389
    protocol    = "tcp"
    cidr_blocks = ["10.255.0.0/16"]
  }

  egress {
    description = "To the VPC"
    from_port   = 0
    to_port     = 65535
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }
}

resource "aws_ebs_volume" "forensics" {
  availability_zone = "eu-west-1a"
  size              = 200
  type              = "gp3"
  encrypted         = true
  kms_key_id        = aws_kms_key.baseline.arn

  tags = {
    Purpose = "forensic-snapshots"
  }
}

resource "aws_db_instance" "audit_index" {
  identifier                          = "audit-index"
  engine                              = "postgres"
  engine_version                      = "16.2"
  instance_class                      = "db.t4g.medium"
  allocated_storage                   = 50
  storage_encrypted                   = true
  kms_key_id                          = aws_kms_key.baseline.arn
  username                            = "audit"
  manage_master_user_password         = true
  db_subnet_group_name                = "security-private"
  publicly_accessible                 = false
  multi_az                            = true
  backup_retention_period             = 35
  deletion_protection                 = true
  copy_tags_to_snapshot               = true
  auto_minor_version_upgrade          = true
  iam_database_authentication_enabled = true
  monitoring_interval                 = 60
  monitoring_role_arn                 = "arn:aws:iam::123456789012:role/rds-monitoring"
  performance_insights_enabled        = true
  performance_insights_kms_key_id     = aws_kms_key.baseline.arn
  enabled_cloudwatch_logs_exports     = ["postgresql"]
}
