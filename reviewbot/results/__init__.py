"""What a review produced and measured: the JSON report and the run's figures."""
