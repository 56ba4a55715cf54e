from shlo_lint.checker.cli.commands import main

main()
