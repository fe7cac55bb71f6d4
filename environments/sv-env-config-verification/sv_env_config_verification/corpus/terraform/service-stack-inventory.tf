# Everything the inventory service owns: network access, database, storage, key and role.
variable "vpc_id" {
  type    = string
  default = "vpc-0fedcba9876543210"
}

resource "aws_kms_key" "inventory" {
  description         = "inventory service data key"
  enable_key_rotation = true
}

resource "aws_security_group" "inventory" {
  name        = "inventory"
  description = "Inventory service hosts"
  vpc_id      = var.vpc_id

  ingress {
    description = "gRPC from the mesh"
    from_port   = 9443
    to_port     = 9443
    protocol    = "tcp"
    cidr_blocks = ["10.12.0.0/16"]
  }

  ingress {
    description = "SSH from the ops jump hosts"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.12.250.0/28"]
  }

  egress {
    description = "Postgres inside the VPC"
    from_port   = 5432
    to_port     = 5432
    protocol    = "tcp"
    cidr_blocks = ["10.12.0.0/16"]
  }
}

resource "aws_db_instance" "inventory" {
  identifier                          = "inventory"
  engine                              = "postgres"
  engine_version                      = "16.2"
  instance_class                      = "db.m6g.large"
  allocated_storage                   = 200
  storage_encrypted                   = true
  kms_key_id                          = aws_kms_key.inventory.arn
  username                            = "inventory"
  manage_master_user_password         = true
  db_subnet_group_name                = "inventory-private"
  vpc_security_group_ids              = [aws_security_group.inventory.id]
  publicly_accessible                 = false
  multi_az                            = true
  backup_retention_period             = 14
  deletion_protection                 = true
  copy_tags_to_snapshot               = true
  auto_minor_version_upgrade          = true
  iam_database_authentication_enabled = true
  monitoring_interval                 = 60
  monitoring_role_arn                 = "arn:aws:iam::123456789012:role/rds-monitoring"
  performance_insights_enabled        = true
  performance_insights_kms_key_id     = aws_kms_key.inventory.arn
  enabled_cloudwatch_logs_exports     = ["postgresql"]
}

resource "aws_s3_bucket" "exports" {
  bucket = "acme-inventory-exports"
}

resource "aws_s3_bucket_versioning" "exports" {
  bucket = aws_s3_bucket.exports.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "exports" {
  bucket = aws_s3_bucket.exports.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "exports" {
  bucket                  = aws_s3_bucket.exports.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_logging" "exports" {
  bucket        = aws_s3_bucket.exports.id
  target_bucket = "acme-prod-s3-access-logs"
  target_prefix = "inventory-exports/"
}

resource "aws_ebs_volume" "index" {
  availability_zone = "eu-west-1b"
  size              = 80
  encrypted         = true
  kms_key_id        = aws_kms_key.inventory.arn
}

resource "aws_iam_role_policy" "inventory" {
  name = "inventory-service"
  role = "inventory-service"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Effect   = "Allow"
        Action   = ["s3:PutObject", "s3:GetObject"]
        Resource = "${aws_s3_bucket.exports.arn}/*"
      },
      {
        Effect   = "Allow"
        Action   = ["kms:Encrypt", "kms:Decrypt", "kms:GenerateDataKey"]
        Resource = aws_kms_key.inventory.arn
      }
    ]
  })
}

resource "aws_cloudtrail" "exports_access" {
  name                          = "inventory-exports-access"
  s3_bucket_name                = "acme-org-cloudtrail"
  s3_key_prefix                 = "inventory"
  kms_key_id                    = aws_kms_key.inventory.arn
  is_multi_region_trail         = true
  include_global_service_events = true
  enable_logging                = true
  enable_log_file_validation    = true
  sns_topic_name                = "inventory-trail"
  cloud_watch_logs_group_arn    = "arn:aws:logs:eu-west-1:123456789012:log-group:inventory-trail:*"
  cloud_watch_logs_role_arn     = "arn:aws:iam::123456789012:role/cloudtrail-to-cloudwatch"

  event_selector {
    read_write_type           = "All"
    include_management_events = false

    data_resource {
      type   = "AWS::S3::Object"
      values = ["${aws_s3_bucket.exports.arn}/"]
    }
  }
}
