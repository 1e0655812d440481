"""--fp16 is turned off without --cuda; the helpers called after only read the options,
turn the flag off or another option (also --cuda, of other options), set it on a copy, or
set a flag they are told by name."""
import torch
from apex.fp16_utils import FP16_Optimizer

import hardware
import options

if not args.cuda:
    args.fp16 = False
options.show(args)
options.disable_fp16(args)
half_args = options.with_fp16(args)
options.enable_fp16(other_args)
options.quiet(args)
hardware.force_cpu(other_args)
options.force(args, "deterministic")
if args.fp16:
    model = model.half()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
if args.cuda and args.fp16:
    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)
for x in loader:
    model.zero_grad()
    loss = model(x).float().mean()
    loss.backward()
    optimizer.step()

