resource "aws_kms_key" "rds" {
  description         = "orders database storage key"
  enable_key_rotation = true
}

resource "aws_db_subnet_group" "orders" {
  name       = "orders-db"
  subnet_ids = var.private_subnet_ids
}

resource "aws_db_instance" "orders" {
  identifier                          = "orders-prod"
  engine                              = "postgres"
  engine_version                      = "16.2"
  instance_class                      = "db.r6g.large"
  allocated_storage                   = 100
  max_allocated_storage               = 500
  storage_type                        = "gp3"
  storage_encrypted                   = true
  kms_key_id                          = aws_kms_key.rds.arn
  db_name                             = "orders"
  username                            = "orders_admin"
  manage_master_user_password         = true
  db_subnet_group_name                = aws_db_subnet_group.orders.name
  vpc_security_group_ids              = [var.db_security_group_id]
  publicly_accessible                 = false
  multi_az                            = true
  backup_retention_period             = 14
  deletion_protection                 = true
  copy_tags_to_snapshot               = true
  auto_minor_version_upgrade          = true
  iam_database_authentication_enabled = true
  monitoring_interval                 = 60
  monitoring_role_arn                 = var.rds_monitoring_role_arn
  performance_insights_enabled        = true
  performance_insights_kms_key_id     = aws_kms_key.rds.arn
  enabled_cloudwatch_logs_exports     = ["postgresql", "upgrade"]
}

variable "private_subnet_ids" {
  type = list(string)
}

variable "db_security_group_id" {
  type = string
}

variable "rds_monitoring_role_arn" {
  type = string
}
