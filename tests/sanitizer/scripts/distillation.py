"""Knowledge distillation: a wide teacher is trained first, then kept in eval mode
and run without gradients to give soft targets to a small student, which is
validated after every epoch.

    --student-first   the student's forward runs before the teacher's
    --bug             after validation the student is never put back in train mode
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn


def mlp(width: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(20, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(0.2), nn.Linear(width, 5))


def distill_loss(student_logits, teacher_logits, labels, temperature: float = 2.0, alpha: float = 0.25):
    soft = F.kl_div(F.log_softmax(student_logits / temperature, dim=-1),
                    F.softmax(teacher_logits / temperature, dim=-1), reduction="batchmean")
    return alpha * soft * temperature ** 2 + (1 - alpha) * F.cross_entropy(student_logits, labels)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--student-first", action="store_true")
    parser.add_argument("--bug", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    inputs = torch.randn(2048, 20)
    labels = (inputs[:, :5] * 3).argmax(dim=1)
    teacher, student = mlp(128), mlp(16)

    teacher_optimizer = torch.optim.Adam(teacher.parameters(), lr=1e-3)
    for _ in range(60):
        batch = torch.randint(0, 2048, (64,))
        loss = F.cross_entropy(teacher(inputs[batch]), labels[batch])
        teacher_optimizer.zero_grad()
        loss.backward()
        teacher_optimizer.step()
    teacher.eval()

    optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
    for epoch in range(4):
        if epoch == 0 or not args.bug:
            student.train()
        for _ in range(30):
            batch = torch.randint(0, 2048, (64,))
            x, y = inputs[batch], labels[batch]
            if args.student_first:
                student_logits = student(x)
                with torch.no_grad():
                    teacher_logits = teacher(x)
            else:
                with torch.no_grad():
                    teacher_logits = teacher(x)
                student_logits = student(x)
            loss = distill_loss(student_logits, teacher_logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        student.eval()
        with torch.no_grad():
            accuracy = (student(inputs).argmax(dim=1) == labels).float().mean().item()
    print(f"student accuracy: {accuracy:.3f}")


if __name__ == "__main__":
    main()
