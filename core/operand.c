/* operand: being written */
