from lint.cli import main

main(prog_name="trainlint")
