"""The judges' formats: reading cases in bounded pieces and answering in the judge's words."""
