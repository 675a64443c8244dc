"""URDF files shipped with piperik (see README.md in this folder)."""
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
