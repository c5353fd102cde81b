from survey.cli import main

main()
