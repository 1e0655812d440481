"""Validation functions (RAFT's evaluate.py): its own script runs them under
`torch.no_grad()`; the training script calls them too."""
import torch


def validate_chairs(model, loader):
    model.eval()
    epe = []
    for image1, image2, flow in loader:
        flow_pr = model(image1, image2)
        epe.append((flow_pr - flow).norm(dim=1).mean().item())
    return sum(epe) / len(epe)


@torch.no_grad()
def validate_kitti(model, loader):
    model.eval()
    epe = []
    for image1, image2, flow in loader:
        epe.append((model(image1, image2) - flow).norm(dim=1).mean().item())
    return sum(epe) / len(epe)


def validate_sintel(model, loader):
    """No call of this module runs it under no_grad: reported here, not at its callers."""
    model.eval()
    epe = []
    for image1, image2, flow in loader:
        flow_pr = model(image1, image2)  # expect: TL406
        epe.append((flow_pr - flow).norm(dim=1).mean().item())
    return sum(epe) / len(epe)


if __name__ == "__main__":
    net = torch.load("raft.pth")
    with torch.no_grad():
        validate_chairs(net, torch.load("chairs.pt"))
