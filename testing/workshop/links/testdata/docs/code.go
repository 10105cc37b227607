package docs

// three lines
