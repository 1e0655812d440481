import gc


def free_memory():
    gc.collect()
