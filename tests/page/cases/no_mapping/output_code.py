# AOT ID: ['1_inference']
import torch

def call(args):
    return args
