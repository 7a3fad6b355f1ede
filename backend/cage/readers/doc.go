package readers
