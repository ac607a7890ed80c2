/* convert: being written */
