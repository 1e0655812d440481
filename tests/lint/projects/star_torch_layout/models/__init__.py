from .vit import *
from .resnet import *
