import torch


class LoggingMixin:
    def log(self, message):
        print(message)


class MemoryMixin:
    def tidy(self):
        torch.cuda.empty_cache()
