"""python run.py --algo gan|sac"""
import sys

from agents.main import main

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "sac")
