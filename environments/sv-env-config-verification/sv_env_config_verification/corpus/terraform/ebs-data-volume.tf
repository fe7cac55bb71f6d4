resource "aws_kms_key" "ebs" {
  description             = "EBS volumes for the search cluster"
  deletion_window_in_days = 14
  enable_key_rotation     = true
}

resource "aws_kms_alias" "ebs" {
  name          = "alias/search-ebs"
  target_key_id = aws_kms_key.ebs.key_id
}

resource "aws_ebs_volume" "search_data" {
  availability_zone = "eu-west-1a"
  size              = 500
  type              = "gp3"
  iops              = 6000
  throughput        = 250
  encrypted         = true
  kms_key_id        = aws_kms_key.ebs.arn

  tags = {
    Name = "search-data-a"
  }
}

resource "aws_ebs_snapshot" "search_data_baseline" {
  volume_id = aws_ebs_volume.search_data.id

  tags = {
    Name = "search-data-a-baseline"
  }
}
