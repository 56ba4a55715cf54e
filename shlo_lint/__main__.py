from shlo_lint.checker.cli import main

main()
