"""What the rule modules share and no rule needs to own: reading operands, types and
replica groups, naming ops in messages. No rule is registered here; a rule module may
import it, never another rule module."""
