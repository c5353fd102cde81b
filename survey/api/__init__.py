"""The Python API's facade: a study file or spec as an object you plan, run and read (``Study``), and
batch files exported and imported for a study. It sits above collection (survey.collect), which it
drives, and below the report and the command line, which call it."""
