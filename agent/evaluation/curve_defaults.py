"""What a learning-curve run is unless told otherwise: light enough for the command line's
parser to read without loading the system it starts (agent.evaluation.curve)."""

FAMILIES = ("kowhai", "axa-car")
DEFAULT_CHECKPOINTS = "0,50,100,200,all"
DEFAULT_SEED = 38
