"""This CPU (``prediction_accuracy.py cpu``)."""
import argparse


def add_cpu_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def cpu_main(args: argparse.Namespace) -> int:
    return 0
