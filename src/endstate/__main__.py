from endstate.cli import main

main()
