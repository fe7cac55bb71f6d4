# Role assumed by the CI system to publish build artifacts and roll the ECS service.
data "aws_iam_policy_document" "ci_assume" {
  statement {
    actions = ["sts:AssumeRoleWithWebIdentity"]
    principals {
      type        = "Federated"
      identifiers = [var.oidc_provider_arn]
    }
    condition {
      test     = "StringEquals"
      variable = "token.actions.githubusercontent.com:sub"
      values   = ["repo:acme/shop:ref:refs/heads/main"]
    }
  }
}

resource "aws_iam_role" "ci_deployer" {
  name               = "ci-deployer"
  assume_role_policy = data.aws_iam_policy_document.ci_assume.json
}

resource "aws_iam_policy" "ci_deployer" {
  name        = "ci-deployer"
  description = "Upload artifacts and update the shop ECS service"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid      = "PublishArtifacts"
        Effect   = "Allow"
        Action   = ["s3:PutObject", "s3:GetObject"]
        Resource = "arn:aws:s3:::acme-build-artifacts/shop/*"
      },
      {
        Sid      = "RollService"
        Effect   = "Allow"
        Action   = ["ecs:UpdateService", "ecs:DescribeServices"]
        Resource = "arn:aws:ecs:eu-west-1:123456789012:service/prod/shop"
      }
    ]
  })
}

resource "aws_iam_role_policy_attachment" "ci_deployer" {
  role       = aws_iam_role.ci_deployer.name
  policy_arn = aws_iam_policy.ci_deployer.arn
}

variable "oidc_provider_arn" {
  type = string
}
