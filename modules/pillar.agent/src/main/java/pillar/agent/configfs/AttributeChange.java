package pillar.agent.configfs;

/** One configfs attribute whose value in the kernel differs from the wanted one. */
record AttributeChange(String attribute, String actual, String wanted) {
    @Override
    public String toString() {
        return attribute + " is '" + actual + "', wanted '" + wanted + "'";
    }
}
