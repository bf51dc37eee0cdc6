from consolidator.cli import main

main()
