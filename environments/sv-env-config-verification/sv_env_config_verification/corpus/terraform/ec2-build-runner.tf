resource "aws_kms_key" "runner" {
  description         = "Build runner disks"
  enable_key_rotation = true
}

resource "aws_security_group" "runner" {
  name        = "build-runner"
  description = "CI build runners: SSH from the CI controller subnet only"
  vpc_id      = "vpc-0a1b2c3d4e5f67890"

  ingress {
    description = "SSH from CI controllers"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.40.12.0/24"]
  }

  egress {
    description = "HTTPS to package mirrors"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_ebs_volume" "cache" {
  availability_zone = "eu-west-1c"
  size              = 250
  type              = "gp3"
  encrypted         = true
  kms_key_id        = aws_kms_key.runner.arn

  tags = {
    Name = "build-cache"
  }
}

resource "aws_iam_policy" "runner" {
  name = "build-runner"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Effect   = "Allow"
        Action   = ["ecr:GetAuthorizationToken"]
        Resource = "*"
      },
      {
        Effect   = "Allow"
        Action   = ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:PutImage"]
        Resource = "arn:aws:ecr:eu-west-1:123456789012:repository/builds/*"
      }
    ]
  })
}
