"""Command-line options of the detector, read once by train.py."""
import argparse


def get_args_parser():
    parser = argparse.ArgumentParser("detector training", add_help=False)
    parser.add_argument("--lr", default=1e-4, type=float)
    parser.add_argument("--batch_size", default=2, type=int)
    parser.add_argument("--epochs", default=50, type=int)
    parser.add_argument("--clip_max_norm", default=0.1, type=float)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--eval_every", default=1, type=int)
    return parser
