from .rules import Exposure, ExposureState

__all__ = ["Exposure", "ExposureState"]
