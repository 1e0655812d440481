def switch(module, training):
    module.train(training)
