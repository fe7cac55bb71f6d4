resource "aws_db_instance" "reporting" {
  identifier                          = "reporting-mysql"
  engine                              = "mysql"
  engine_version                      = "8.0.36"
  instance_class                      = "db.m6g.xlarge"
  allocated_storage                   = 200
  storage_encrypted                   = true
  kms_key_id                          = var.rds_kms_key_arn
  username                            = "reporting"
  manage_master_user_password         = true
  db_subnet_group_name                = "private-data"
  publicly_accessible                 = false
  multi_az                            = true
  backup_retention_period             = 7
  deletion_protection                 = true
  copy_tags_to_snapshot               = true
  auto_minor_version_upgrade          = true
  iam_database_authentication_enabled = true
  monitoring_interval                 = 30
  monitoring_role_arn                 = var.rds_monitoring_role_arn
  performance_insights_enabled        = true
  performance_insights_kms_key_id     = var.rds_kms_key_arn
  enabled_cloudwatch_logs_exports     = ["audit", "error", "slowquery"]
  parameter_group_name                = aws_db_parameter_group.reporting.name
}

resource "aws_db_parameter_group" "reporting" {
  name   = "reporting-mysql8"
  family = "mysql8.0"

  parameter {
    name  = "require_secure_transport"
    value = "1"
  }
}

variable "rds_kms_key_arn" {
  type = string
}

variable "rds_monitoring_role_arn" {
  type = string
}
