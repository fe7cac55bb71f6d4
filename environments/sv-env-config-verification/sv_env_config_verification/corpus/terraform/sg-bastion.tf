# Bastion host reachable over SSH from the corporate VPN only.
resource "aws_security_group" "bastion" {
  name        = "bastion-ssh"
  description = "SSH to the bastion from the VPN range"
  vpc_id      = var.vpc_id

  ingress {
    description = "SSH from corporate VPN"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.20.0.0/16"]
  }

  egress {
    description = "SSH to private subnets"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }

  tags = {
    Name = "bastion-ssh"
  }
}

variable "vpc_id" {
  type = string
}
