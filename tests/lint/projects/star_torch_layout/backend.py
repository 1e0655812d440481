"""Picks the array library the models run on: `torch` here is whatever the
environment names (a CPU stub on machines without CUDA)."""
import importlib
import os

torch = importlib.import_module(os.environ.get("TORCH_MODULE", "torch"))
