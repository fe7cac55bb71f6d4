resource "aws_kms_key" "app_secrets" {
  description             = "Envelope encryption for application secrets"
  key_usage               = "ENCRYPT_DECRYPT"
  deletion_window_in_days = 30
  enable_key_rotation     = true
  rotation_period_in_days = 180
}

resource "aws_kms_alias" "app_secrets" {
  name          = "alias/app-secrets"
  target_key_id = aws_kms_key.app_secrets.key_id
}

resource "aws_kms_key" "sqs" {
  description             = "Server-side encryption for order queues"
  deletion_window_in_days = 30
  enable_key_rotation     = true
}

resource "aws_kms_alias" "sqs" {
  name          = "alias/order-queues"
  target_key_id = aws_kms_key.sqs.key_id
}
