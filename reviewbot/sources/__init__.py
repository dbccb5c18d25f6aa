"""What a review reads: the PR snapshot and its diff index, local git (`--local` and the PR
checkout), a PR's URL, the CI axis. Forge readers (`reviewbot.github`) produce snapshots."""
