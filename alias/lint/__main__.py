from trainlint.cli import main

main(prog_name="trainlint")
