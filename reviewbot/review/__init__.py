"""The review of one snapshot, start to verdict, and the step's exit gate."""
