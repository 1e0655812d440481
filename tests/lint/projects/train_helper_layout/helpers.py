import copy
import logging

import dropout_tools
from modes import switch


def set_mode(model):
    """Back to training, through another module of the project."""
    switch(model, True)


def prepare(model):
    """What a library does to the model is not known here."""
    dropout_tools.configure(model)


def log_model(model):
    """Python's own library only: the mode stays as it is."""
    logging.info("%s", model)
    return copy.deepcopy(model)
