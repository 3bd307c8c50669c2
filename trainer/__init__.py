"""Voice making: dataset curation, preprocessing, training and export (no Qt).

Empty for now: the dataset and trainer issues fill it.
"""
