"""--fp16 is turned off without --cuda, then a helper of hardware.py turns --cuda off: the
flag still on no longer says that the run has CUDA, so the wrapping under both misses."""
import torch
from apex.fp16_utils import FP16_Optimizer

import hardware

if not args.cuda:
    args.fp16 = False
hardware.force_cpu(args)
if args.fp16:
    model = model.half()  # expect: TL107
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
if args.cuda and args.fp16:
    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)
for x in loader:
    model.zero_grad()
    loss = model(x).float().mean()
    loss.backward()
    optimizer.step()
