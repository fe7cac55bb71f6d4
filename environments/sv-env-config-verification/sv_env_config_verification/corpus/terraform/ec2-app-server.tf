# A private application server with an encrypted data disk.
resource "aws_security_group" "app" {
  name        = "app-server"
  description = "App traffic from the load balancer, SSH from the bastion subnet"
  vpc_id      = var.vpc_id

  ingress {
    description     = "App port from the ALB"
    from_port       = 8080
    to_port         = 8080
    protocol        = "tcp"
    security_groups = [var.alb_security_group_id]
  }

  ingress {
    description = "SSH from bastion subnet"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.0.1.0/24"]
  }

  egress {
    description = "HTTPS egress via NAT"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_instance" "app" {
  ami                    = var.ami_id
  instance_type          = "m6i.large"
  subnet_id              = var.private_subnet_id
  vpc_security_group_ids = [aws_security_group.app.id]
  iam_instance_profile   = var.instance_profile
  monitoring             = true
  ebs_optimized          = true

  metadata_options {
    http_endpoint = "enabled"
    http_tokens   = "required"
  }

  root_block_device {
    volume_size = 30
    volume_type = "gp3"
    encrypted   = true
  }
}

resource "aws_ebs_volume" "app_data" {
  availability_zone = "eu-west-1b"
  size              = 100
  encrypted         = true
  kms_key_id        = var.ebs_kms_key_arn
}

resource "aws_volume_attachment" "app_data" {
  device_name = "/dev/sdf"
  volume_id   = aws_ebs_volume.app_data.id
  instance_id = aws_instance.app.id
}

variable "vpc_id" {
  type = string
}

variable "alb_security_group_id" {
  type = string
}

variable "ami_id" {
  type = string
}

variable "private_subnet_id" {
  type = string
}

variable "instance_profile" {
  type = string
}

variable "ebs_kms_key_arn" {
  type = string
}
