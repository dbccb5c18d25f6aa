"""What a run is asked to do: the `.reviewbot.toml`, the environment, the target."""
