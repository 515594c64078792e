#!/usr/bin/env python3
"""Convert a legacy flat file to the kvlite WAL format."""
import sys

def main(argv):
    print("migrating", argv[1:])

if __name__ == "__main__":
    main(sys.argv)
