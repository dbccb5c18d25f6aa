"""What reviewbot recorded on a pull request, and how it trusts it when read back."""
