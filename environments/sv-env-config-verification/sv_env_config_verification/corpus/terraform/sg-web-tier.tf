resource "aws_security_group" "web" {
  name        = "web-tier"
  description = "Public HTTPS; admin access from the ops network only"
  vpc_id      = var.vpc_id

  ingress {
    description = "HTTPS from anywhere"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }

  ingress {
    description = "SSH from ops network"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["172.16.8.0/24"]
  }

  egress {
    description = "HTTPS to the internet"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_security_group" "windows_jump" {
  name        = "windows-jump"
  description = "RDP to the Windows jump host from the admin subnet"
  vpc_id      = var.vpc_id

  ingress {
    description = "RDP from admin subnet"
    from_port   = 3389
    to_port     = 3389
    protocol    = "tcp"
    cidr_blocks = ["192.168.50.0/24"]
  }

  egress {
    description = "RDP to internal hosts"
    from_port   = 3389
    to_port     = 3389
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }
}

variable "vpc_id" {
  type = string
}
