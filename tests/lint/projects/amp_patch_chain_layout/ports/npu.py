"""Runs the CUDA training code on Ascend NPUs: importing this module swaps
PyTorch's CUDA AMP API for the NPU's, so `torch.cuda.amp.autocast` runs there."""
import torch
import torch_npu

torch.cuda.amp.autocast = torch_npu.npu.amp.autocast
torch.cuda.amp.GradScaler = torch_npu.npu.amp.GradScaler
