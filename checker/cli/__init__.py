"""The command line: `shlo-lint` and its subcommands, files and directories walked, many
files on every core, progress, and `shlo-lint run`."""
